class ApplicationPolicy
  def initialize(user, record)
    @user = user
    @record = record
  end
end
